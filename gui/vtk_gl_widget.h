// A QOpenGLWidget that hosts a vtkGenericOpenGLRenderWindow: VTK inside a Qt 6 window.
// Debian's VTK 9.1 ships its Qt widget (QVTKOpenGLNativeWidget) for Qt 5 only, so this does
// what that widget does (docs/gui.md, "How it is built"): VTK draws into its own framebuffer in the
// widget's OpenGL context, and paintGL blits the result into the widget's framebuffer.
// Mouse and wheel events go to a vtkGenericRenderWindowInteractor (trackball camera: left
// drag rotates, right drag or wheel zooms, middle drag pans); a click without drag is
// reported as clicked() for picking.
#pragma once

#include <QOpenGLWidget>
#include <QPoint>

#include <vtkNew.h>

class vtkGenericOpenGLRenderWindow;
class vtkGenericRenderWindowInteractor;
class vtkObject;

namespace topolens::gui {

// VTK's OpenGL2 backend needs an OpenGL 3.2 core context: call before QApplication exists.
void use_vtk_surface_format();

class VtkGlWidget : public QOpenGLWidget {
    Q_OBJECT
  public:
    explicit VtkGlWidget(QWidget* parent = nullptr);
    ~VtkGlWidget() override;

    vtkGenericOpenGLRenderWindow* render_window() const;
    vtkGenericRenderWindowInteractor* interactor() const;
    // Device pixels per widget pixel (VTK works in device pixels).
    double pixel_ratio() const { return devicePixelRatioF(); }
    // Draws one frame now, as a repaint would, and waits until the GL has finished it;
    // returns the milliseconds that took (the frame benchmark, --bench-frames).
    double render_frame_now();

  signals:
    // A left click that did not drag, in VTK display coordinates (device pixels from the
    // bottom-left corner).
    void clicked(double display_x, double display_y);
    // The mouse started / stopped moving the camera (rotate, pan, zoom by drag): views
    // may draw a cheaper picture in between.
    void interactionStarted();
    void interactionFinished();

  protected:
    void initializeGL() override;
    void resizeGL(int width, int height) override;
    void paintGL() override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

  private:
    void window_event(vtkObject* caller, unsigned long event, void* call_data);
    // Tells the interactor where the mouse is and which modifiers are down.
    void set_event_position(const QPointF& position, Qt::KeyboardModifiers modifiers);

    vtkNew<vtkGenericOpenGLRenderWindow> window_;
    vtkNew<vtkGenericRenderWindowInteractor> interactor_;
    bool in_paint_ = false;
    QPoint press_position_;
    bool dragged_ = false;
};

} // namespace topolens::gui
